for n in range(400):
    print(f"line {n}")
marker = "finished"
print(marker)

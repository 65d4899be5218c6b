def check(n):
    doubled = n * 2
    return doubled  # conditional breakpoint here


for i in range(3):
    check(i)
print("finished")

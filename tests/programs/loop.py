def add(a, b):
    total = a + b
    return total


def main():
    acc = 0
    for i in range(5):
        acc = add(acc, i)
        print("step", i, acc)
    big_list = list(range(300))
    big_dict = {f"k{n}": n for n in range(120)}
    print("done", acc, len(big_list), len(big_dict))
    return acc


# a comment line (not executable)

if __name__ == "__main__":
    main()

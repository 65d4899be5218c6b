class Config:
    level = 3


def main():
    huge_dict = {f"key{n}": n for n in range(10_000)}
    huge_list = list(range(10_000))
    kind = Config
    long_text = "x" * 5000
    nested = {"a": [1, [2, [3, [4]]]], "b": {"c": {"d": 1}}}
    print("ready", len(huge_dict), len(huge_list), kind, len(long_text), nested)  # stop here


if __name__ == "__main__":
    main()

import json


def main():
    data = {"a": 1, "b": [1, 2]}
    text = json.dumps(data, indent=1)  # DUMPS
    print(text)


main()

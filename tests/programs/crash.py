def divide(a, b):
    return a / b


def main():
    values = [3, 0]
    return divide(*values)


try:
    raise KeyError("handled")
except KeyError:
    pass
main()

"""The seed's example program (mcp-debugger's python_simple_swap): a swap that loses a value."""


# line 5 is blank; swap_variables starts at line 7 as in the seed's breakpoint context


def swap_variables(a, b):
    """This function is supposed to swap two variables."""
    a = b  # Bug: loses original value of 'a'
    b = a  # Bug: 'b' gets the new value of 'a', not the original
    return a, b


def main():
    x = 10
    y = 20
    result = x + y
    print(f"Result: {result}")
    x, y = swap_variables(x, y)
    print(f"Swapped: x={x}, y={y}")
    return result


if __name__ == "__main__":
    main()

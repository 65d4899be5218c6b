package main

import "fmt"

// A value written in a loop, watched by a data breakpoint (tests/dap/test_native_data_breakpoints.py).
type tally struct {
	total int
	count int
}

func main() {
	t := &tally{}
	fmt.Println("start") // MARK:ready
	for i := 1; i <= 3; i++ {
		t.total += i // MARK:write
		t.count++
	}
	fmt.Println("total", t.total)
}

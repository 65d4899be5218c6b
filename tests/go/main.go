package main

import "fmt"

// Debugged through Delve's DAP server, chosen by the "delve" adapter profile.
func add(a, b int) int {
	sum := a + b // MARK:add
	return sum
}

func main() {
	acc := 0
	for i := 0; i < 3; i++ {
		acc = add(acc, i)
	}
	fmt.Println("done", acc)
}

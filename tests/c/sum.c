#include <stdio.h>

/* Debugged through lldb's DAP adapter, chosen by the "lldb" adapter profile. */
static int add(int a, int b) {
    int sum = a + b; /* MARK:add */
    return sum;
}

int main(void) {
    int acc = 0;
    for (int i = 0; i < 3; i++) {
        acc = add(acc, i);
    }
    printf("done %d\n", acc);
    return 0;
}

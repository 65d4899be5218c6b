#include <stdio.h>

/* A value written in a loop, watched by a data breakpoint (tests/dap/test_native_data_breakpoints.py). */
struct tally {
    int total;
    int count;
};

static struct tally tally;
static int slots[8]; /* never written: more watches than the CPU has debug registers */

int main(void) {
    puts("start"); /* MARK:ready */
    for (int i = 1; i <= 3; i++) {
        tally.total += i; /* MARK:write */
        tally.count++;
    }
    printf("total %d\n", tally.total);
    return 0;
}

#include <stdio.h>

/* Prints to stdout and stderr around a breakpoint, then exits with code 3 (lldb profile, started by pairdbg). */
int main(void) {
    int printed = 0;
    for (int i = 0; i < 200; i++) {
        printf("line %d\n", i);
        printed++;
    }
    fflush(stdout);
    fprintf(stderr, "to stderr\n");
    printf("after %d\n", printed); /* MARK:after */
    return 3;
}

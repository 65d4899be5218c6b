import sys
import time

for n in range(200):
    print(f"line {n}", flush=True)
    if n % 50 == 0:
        print(f"err {n}", file=sys.stderr, flush=True)
    time.sleep(0.001)  # lets the output arrive as many separate events, so readers must page
marker = "finished"
print(marker)

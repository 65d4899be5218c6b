import time


def tick(n):
    return n + 1


count = 0
while True:
    count = tick(count)
    time.sleep(0.02)

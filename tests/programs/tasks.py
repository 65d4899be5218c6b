import asyncio


async def fetch():
    await asyncio.sleep(30)  # fetcher waits here


async def wait_for(event):
    await event.wait()  # waiter waits here


async def main():
    event = asyncio.Event()
    tasks = [asyncio.create_task(fetch(), name="fetcher"), asyncio.create_task(wait_for(event), name="waiter")]
    await asyncio.sleep(0.05)
    print("tasks started")  # stop here
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


asyncio.run(main())

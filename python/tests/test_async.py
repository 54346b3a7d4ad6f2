"""AsyncStore: the same calls awaited, run off the event loop."""

import asyncio
import time

from edgemem import EdgememError, open_store_async


def test_async_store_roundtrip_and_does_not_block_the_loop(tmp_path):
    async def main():
        async with await open_store_async(tmp_path / "a.db", dims=2) as s:
            await s.put("a", "k", "async value", embedding=[1, 0])
            m = await s.get("a", "k")
            assert m.value == "async value"
            hits = await s.search("async", vector=[1, 0], k=1)
            assert hits[0].key == "k"
            try:
                await s.put("a", "k", 1, if_version=9)
            except EdgememError as e:
                assert e.code == "CONFLICT"
            else:
                raise AssertionError("no CONFLICT")
            # The loop keeps ticking while many store calls run.
            ticks = 0
            stop = False

            async def ticker():
                nonlocal ticks
                while not stop:
                    ticks += 1
                    await asyncio.sleep(0)

            t = asyncio.create_task(ticker())
            await asyncio.gather(*(s.put("b", str(i), "x" * 1000) for i in range(200)))
            stop = True
            await t
            assert ticks > 10
            assert len([m async for m in s.aiter("b")]) == 200
            assert await s.seq() >= 201

    start = time.monotonic()
    asyncio.run(main())
    assert time.monotonic() - start < 60

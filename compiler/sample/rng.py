"""A portable random generator and the derivation of independent seed streams.

We do not use Python's `random` or numpy's generators for anything that reaches an instance: their algorithms may
change between versions, and "same seed ⇒ same bytes on any machine" is a promise. SplitMix64 is tiny, fast in pure
Python, and fully specified here.
"""
from __future__ import annotations

import hashlib

_MASK = (1 << 64) - 1
STREAMS = ("state", "query", "render", "prompt")


def derive_seed(seed: int, task_id: str, stream: str) -> int:
    """Seed of one named stream; streams of one instance are independent of each other."""
    digest = hashlib.sha256(f"tessera/v1/{task_id}/{stream}/{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class Rng:
    __slots__ = ("state", "draws")

    def __init__(self, seed: int):
        self.state = seed & _MASK
        self.draws = 0

    def copy(self) -> "Rng":
        """A generator that continues exactly where this one is (what a redraw replays the render stream from)."""
        other = Rng(0)
        other.state, other.draws = self.state, self.draws
        return other

    def next64(self) -> int:
        self.draws += 1
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n), without modulo bias."""
        if not 0 < n <= 1 << 64:  # above 2**64 no 64-bit draw is ever under `limit`: the loop would never end
            raise ValueError(f"cannot draw below {n}")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            r = self.next64()
            if r < limit:
                return r % n

    def randint(self, lo: int, hi: int) -> int:
        if hi < lo:
            raise ValueError(f"randint({lo}, {hi}): empty range")
        return lo + self.below(hi - lo + 1)

    def random(self) -> float:
        return (self.next64() >> 11) * (1.0 / (1 << 53))

    def uniform(self, lo: float, hi: float) -> float:
        return lo + (hi - lo) * self.random()

    def choice(self, xs):
        if not xs:
            raise ValueError("choice from an empty list")
        return xs[self.below(len(xs))]

    def sample(self, xs, k: int) -> list:
        if not 0 <= k <= len(xs):
            raise ValueError(f"cannot sample {k} items from a list of {len(xs)}")
        pool = list(xs)
        for i in range(k):
            j = i + self.below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]

    def shuffle(self, xs) -> list:
        return self.sample(xs, len(xs))


def stream(seed: int, task_id: str, name: str) -> Rng:
    return Rng(derive_seed(seed, task_id, name))

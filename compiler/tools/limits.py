"""The bounds of one tool session (an episode): which tools, how many calls, how large a result, how long a call."""
from __future__ import annotations

from dataclasses import dataclass, fields

from ..errors import TesseraError
from ..load.settings import settings_values

TOOLS = ("zoom", "crop", "inspect")

# What any episode may ask for, in a config or in a trace: the limits of the code. A trace is untrusted (replay
# rebuilds its calls), so its recorded limits may only ask for less than these; a limit over one is refused, never
# clamped (a clamped replay would differ and blame the wrong thing). Sized so that one call stays around a second
# and a few hundred MB at worst: a 2,048-pixel square returned, 32 M pixels redrawn (max_scale: 2 to 16, above).
CEILINGS = {"max_calls": 64, "max_image_pixels": 2048 * 2048, "max_render_pixels": 32 * 1024 * 1024,
            "time_limit_s": 60.0}


@dataclass(frozen=True)
class ToolLimits:
    offer: tuple[str, ...] = TOOLS  # the tools offered, where the task has them (inspect: where its task may)
    max_calls: int = 3  # calls per episode; a call past them is answered with a text error
    max_scale: int = 4  # zoom's largest factor (zoom takes integers from 2)
    max_image_pixels: int = 262_144  # pixels of one returned image (512 × 512)
    max_render_pixels: int = 8_388_608  # pixels one zoom may redraw (the whole picture at k×, then cut)
    time_limit_s: float = 10.0  # wall-clock seconds one call may take in an episode (a watchdog: see session)

    @classmethod
    def from_mapping(cls, data: dict | None, where: str = "tools") -> "ToolLimits":
        limits = cls(**settings_values(cls, data, where))
        problems = []
        if any(t not in TOOLS for t in limits.offer) or len(set(limits.offer)) != len(limits.offer):
            problems.append(f"offer lists tools among {', '.join(TOOLS)}, each at most once")
        if limits.max_calls < 0:
            problems.append("max_calls must be >= 0")
        if not 2 <= limits.max_scale <= 16:
            problems.append("max_scale must be from 2 to 16")
        if limits.max_image_pixels < 64 * 64:
            problems.append("max_image_pixels must be at least 4096 (64 × 64)")
        if limits.max_render_pixels < limits.max_image_pixels:
            problems.append("max_render_pixels must be at least max_image_pixels")
        if not limits.time_limit_s > 0:
            problems.append("time_limit_s must be > 0")
        for name, most in CEILINGS.items():
            value = getattr(limits, name)
            if value > most:
                problems.append(f"{name} {value:,} is over the most any episode may have ({most:,})")
        if problems:
            raise TesseraError(f"{where}: " + "; ".join(problems))
        return limits

    def to_mapping(self) -> dict:
        return {f.name: list(getattr(self, f.name)) if f.name == "offer" else getattr(self, f.name)
                for f in fields(self)}

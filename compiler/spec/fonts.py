"""The font classes a grammar's `render.fonts` or a component's `fonts` may name. Skia-free: the checker reads them
here; render/typefaces.py holds the faces of each class (fonts/fonts.yaml) and their coverage."""
from __future__ import annotations

FONT_CLASSES = ("sans", "serif", "slab", "mono", "condensed", "rounded", "handwriting")


def check_classes(classes, where: str) -> str | None:
    """None when `classes` is a list of known font classes, else the message for a positioned error."""
    if not isinstance(classes, list) or not classes or not all(isinstance(c, str) for c in classes):
        return f"{where} must be a non-empty list of font classes ({', '.join(FONT_CLASSES)})"
    bad = [c for c in classes if c not in FONT_CLASSES]
    if bad:
        return f"unknown font class '{bad[0]}' in {where} (known: {', '.join(FONT_CLASSES)})"
    return None

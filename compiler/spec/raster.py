"""The raster edits a grammar's `render.raster.skip` may name, in the order render/raster.py applies them (a photo
look combines warp, tone, vignette and noise with stronger bounds). Skia- and OpenCV-free: the checker reads them."""
from __future__ import annotations

EDITS = ("warp", "blur", "jpeg", "tone", "vignette", "scanlines", "gauss", "salt_pepper", "photo", "file")

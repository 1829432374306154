"""Stage 6, render: a library of marks and layouts drawn with skia; every bound mark lands in the render map."""

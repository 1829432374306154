"""Stage 6, render: frames, marks, guides and composition drawn with skia; every bound mark lands in the render map."""

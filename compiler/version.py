"""The package's version, in the lowest layer: the trace records it (trace/record.py `versions`), the package's
`__init__` re-exports it and pyproject.toml reads it from here."""

__version__ = "0.10.0"  # 0.10: strong pictures are JPEG files (strong bytes change), drawing charged, render errors positioned; 0.9: PNGs through libdeflate 6 (plain image bytes and ids change, pixels do not), noise as rows of one strip (mild and strong bytes change); 0.8: raster edits on OpenCV (strong bytes change); 0.7: canvas aspect fixes, cheaper jpeg and vignette (strong bytes change); 0.6: tools, curriculum rules, faster variety (strong bytes change); 0.5: eleven domains (boards and shapes tasks re-homed: new ids); 0.4: one package, the API

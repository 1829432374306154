"""The scene vocabulary, with no skia: marks (channels, types, defaults, options), guides, colour words and palettes,
font classes, raster edits and SVG path data. The type checker (codegen) checks a scene against it and the renderer
(render) draws by it; nothing here imports either (tessera.layers: spec sits below expr, codegen and render)."""

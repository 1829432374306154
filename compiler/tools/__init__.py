"""Tools over an instance: what a model may ask of a picture before it answers (zoom, crop, inspect).

The stage after trace: a tool reads an instance (its trace and the render inputs kept beside it) and never changes
it. `limits` bounds a session, `calls` reads a call out of a model's reply, `session` runs calls and records them
in a trace that replay re-runs byte for byte (validate.replay)."""

"""Stage 7, trace: build an instance from its seed streams, record everything, replay and compare."""

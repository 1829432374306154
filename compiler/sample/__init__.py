"""Stage 4, sample: seed streams, the portable random generator, bounded rejection sampling of states."""

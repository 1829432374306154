"""A dataset on disk: everything that knows its format, which build (export), validate, replay and audit share.

    layout.py          file names: the manifest, the build's state folder, the dataset format, shard names
    rows.py            the row schema (columns, pyarrow schema, Hugging Face features), a row from an instance, the
                       shard writer and atomic file writes, the split-leak key
    provenance.py      the build record each shard carries (what its rows were built from)
    card.py            the dataset card (README.md): writer and checker
    phash.py           the row's phash column (a 256-bit dHash) and the Hamming distance between two
    untrusted.py       the readers of what came from elsewhere: manifest, shards, rows, traces, responses
    instance_files.py  the files `tessera sample` writes for one instance
"""

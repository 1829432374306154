"""Stage 9, export: build configs, task-uniform build plans, parallel gated builds, Parquet shards, manifests."""

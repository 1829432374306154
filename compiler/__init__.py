"""Tessera: a declarative task-taxonomy compiler for visual-reasoning RLVR data.

The pipeline, one folder per stage: load → check → codegen (compile) → sample → execute → render → trace → verify.
"""
__version__ = "0.3.0"  # 0.3: hardening (verifier labels carry synonyms and forms; traces record the work charged)

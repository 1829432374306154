"""Tessera: a declarative task-taxonomy compiler for visual-reasoning RLVR data.

The pipeline, one folder per stage: load → check → codegen (compile) → sample → execute → render → trace → verify.
"""
__version__ = "0.2.0"  # 0.2: the scene language (composed scenes and components; images of re-expressed grammars changed)

"""The model's response inside a decoded chat transcript.

OpenRLHF hands the reward function `queries`: prompt tokens + response tokens decoded with special tokens kept
(`skip_special_tokens=False`). For a vision-language model the prompt part also holds the expanded image tokens,
so it never equals the dataset prompt string. The response is the text after the last assistant marker, cut at
the first end-of-turn token and stripped of trailing special tokens.

Work is bounded whatever the input: every step is a C-level `rfind`, one regex pass, or a scan over at most
`MAX_RESPONSE` trailing characters (the verifier reads only the last 4096 characters anyway).
"""
from __future__ import annotations

import re

# The text that opens an assistant turn, per chat-template family (Qwen/ChatML, Llama 3, Gemma, Mistral/Llama 2).
ASSISTANT_MARKERS = (
    "<|im_start|>assistant",
    "<|start_header_id|>assistant<|end_header_id|>",
    "<start_of_turn>model",
    "[/INST]",
)
# Tokens that end a turn or pad a sequence; the response stops at the first one.
END_TOKENS = ("<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<end_of_turn>", "<eos>", "</s>", "<|end|>")
_FIRST_END = re.compile("|".join(re.escape(t) for t in END_TOKENS))  # one pass instead of one per token
# Only this many trailing characters of a response can matter: the verifier reads the last 4096 of them; the margin
# leaves room for trailing special tokens and whitespace that are stripped first.
MAX_RESPONSE = 16384
_MAX_SPECIAL = 64  # longest `<|...|>` token we strip


def _strip_trailing_specials(text: str, start: int, end: int) -> int:
    """New end of `text[start:end]` once trailing whitespace and special tokens are removed (no copying)."""
    while end > start:
        ch = text[end - 1]
        if ch.isspace():
            end -= 1
            continue
        if ch != ">":
            break
        for tok in END_TOKENS:
            if text.endswith(tok, start, end):
                end -= len(tok)
                break
        else:
            # any other `<|name|>` token (pad, vision markers): ChatML-style special tokens
            if end - start >= 4 and text[end - 2] == "|":
                opening = text.rfind("<|", max(start, end - _MAX_SPECIAL), end - 2)
                if opening >= 0:
                    end = opening
                    continue
            break
    return end


def extract_response(query, prompt=None) -> str:
    """The response in a decoded transcript. Never raises; returns "" for non-text input."""
    if not isinstance(query, str):
        return ""
    start = -1
    for marker in ASSISTANT_MARKERS:
        at = query.rfind(marker)
        if at >= 0 and at + len(marker) > start:
            start = at + len(marker)
    if start < 0:
        # No chat template: the transcript is the prompt string followed by the response.
        start = len(prompt) if isinstance(prompt, str) and prompt and query.startswith(prompt) else 0
    # Cut at the first end-of-turn token after the marker.
    first_end = _FIRST_END.search(query, start)
    end = first_end.start() if first_end else len(query)
    start = max(start, end - MAX_RESPONSE)
    end = _strip_trailing_specials(query, start, end)
    while start < end and query[start] in " \t\r\n":
        start += 1
    return query[start:end]


# -- building chat text for the online environment ---------------------------------------------------------------
def vision_tokenizer(hf_tokenizer) -> bool:
    """A vision-language processor (an image goes into the chat), as OpenRLHF's executors tell them apart."""
    return hasattr(hf_tokenizer, "image_processor")


def _content(hf_tokenizer, text: str, image: bool):
    if vision_tokenizer(hf_tokenizer):
        return ([{"type": "image"}] if image else []) + [{"type": "text", "text": text}]
    return text  # a text-only model (smoke tests of the plumbing): the text alone


def prompt_chat(hf_tokenizer, text: str, image: bool = True) -> str:
    """The chat prompt of one user turn (with the image first, for a vision model), ready for the assistant."""
    return hf_tokenizer.apply_chat_template([{"role": "user", "content": _content(hf_tokenizer, text, image)}],
                                            tokenize=False, add_generation_prompt=True)


_REPLY = "\u2063tessera-reply\u2063"  # stands for the model's reply while the template writes what follows it


def reply_ends_turn(text, last_token_id, hf_tokenizer) -> bool:
    """Did the reply's own tokens end the assistant turn (an end-of-turn token last)? vLLM keeps the stop token in
    the ids and drops it from the text; a stand-in engine may write it into the text."""
    if isinstance(text, str) and text.rstrip().endswith(END_TOKENS):
        return True
    if last_token_id is None:
        return False
    try:
        return hf_tokenizer.decode([last_token_id], skip_special_tokens=False) in END_TOKENS
    except (TypeError, ValueError, IndexError, KeyError, OverflowError):  # cannot decode one id: the template closes it
        return False


def user_turn_after_reply(hf_tokenizer, text: str, image: bool, reply_closed: bool) -> str:
    """What follows a model's reply when a tool answers it, as the chat template writes it: the end of the
    assistant turn (unless the reply's tokens already ended it), a user turn holding the image (if any) and `text`,
    and the opening of the next assistant turn."""
    chat = [{"role": "user", "content": _content(hf_tokenizer, "?", False)},
            {"role": "assistant", "content": _REPLY},
            {"role": "user", "content": _content(hf_tokenizer, text, image)}]
    full = hf_tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    tail = full[full.index(_REPLY) + len(_REPLY):]
    if reply_closed:
        for token in END_TOKENS:
            if tail.startswith(token):
                return tail[len(token):]
    return tail

"""Tool episodes of the online environment: a sample offered tools may call them (tessera.tools) before it answers.

An episode runs through OpenRLHF's own multi-turn executor (`MultiTurnAgentExecutor`, openrlhf/utils/agent.py):
it tokenises the first observation with the image (`process_prompt_with_images`), generates a reply, hands it to
the agent instance's `step`, appends the returned feedback and `environment_images` (tokenised the same way, their
pixel inputs accumulated), and loops until `done` or until `max_length` leaves no room. OpenRLHF builds the agent
instance with no arguments and resets it with the prompt and the label only, so `ToolTurns` prepares each
sample's `Episode` (instance, tool session, tokenizer) first and passes its key as the label; the instance it
builds looks the episode up in `reset`.

A reply holding a call (`<tool>{...}</tool>`, tools.calls) is answered with the tool's text and image as a user
turn in the chat template; a reply without one is the answer, scored by the contract. The episode also ends at
`max_turns` replies (the last reply is the answer, whatever it holds) or when the engine cut a reply at the length
limit. A result that would leave less than ANSWER_ROOM tokens of `max_length` is not shown (the model is told to
answer, and the call's record says so). Reward = max(0, contract reward − tool_cost × calls).
"""
from __future__ import annotations

import itertools
from copy import deepcopy
from dataclasses import dataclass
from typing import ClassVar

from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor

from tessera.errors import TesseraError
from tessera.load.settings import settings_values
from tessera.tools.calls import find_call
from tessera.tools.limits import TOOLS, ToolLimits
from tessera.tools.session import ToolSession
from tessera.training.chat import (extract_response, prompt_chat, reply_ends_turn, user_turn_after_reply,
                                   vision_tokenizer)
from tessera.verify.score import Score, score

ANSWER_ROOM = 64  # tokens a tool's result must leave within max_length for the answer
NO_ROOM = "tool error: no room is left in this episode for the result: answer now"
MAX_TURNS = 16
# A correct answer after every call must still earn more than a wrong answer in the right form (0.05): the
# cost of all calls together stays under the answer's weight less the format's (0.95 − 0.05).
MAX_TOTAL_COST = 0.9


@dataclass(frozen=True)
class ToolsConfig:
    """The `tools:` block of a training config (online mode)."""
    enabled: bool = False
    offer: tuple[str, ...] = TOOLS  # inspect only where the task may use it (codegen.task)
    max_calls: int = 3
    max_turns: int = 4  # replies per episode; at least max_calls + 1, so every call leaves a turn to answer
    max_scale: int = 4
    max_image_pixels: int = 262_144
    max_render_pixels: int = 8_388_608
    time_limit_s: float = 10.0
    tool_cost: float = 0.0  # taken from the reward per call

    @classmethod
    def from_mapping(cls, data: dict | None, where: str = "tools") -> "ToolsConfig":
        data = dict(data or {})
        own = {"enabled", "max_turns", "tool_cost"}
        settings_values(cls, data, where)  # every key known, and of its field's type
        limits = ToolLimits.from_mapping({k: v for k, v in data.items() if k not in own}, where)
        values = {k: getattr(limits, k) for k in limits.to_mapping()}
        values.update(settings_values(cls, {k: v for k, v in data.items() if k in own}, where, only=own))
        config = cls(**values)
        problems = []
        if not config.max_calls + 1 <= config.max_turns <= MAX_TURNS:
            problems.append(f"max_turns must be from max_calls + 1 ({config.max_calls + 1}) to {MAX_TURNS}")
        if not 0.0 <= config.tool_cost or config.tool_cost * config.max_calls >= MAX_TOTAL_COST:
            problems.append(f"tool_cost must be >= 0 with tool_cost × max_calls < {MAX_TOTAL_COST} (a correct answer "
                            f"after every call must earn more than a wrong one)")
        if problems:
            raise TesseraError(f"{where}: " + "; ".join(problems))
        return config

    @property
    def limits(self) -> ToolLimits:
        return ToolLimits(**{k: getattr(self, k) for k in ToolLimits().to_mapping()})

    @property
    def images_per_prompt(self) -> int:
        """The most images one episode holds (vLLM's per-prompt limit): the instance's and one per call."""
        return 1 + self.max_calls if self.enabled else 1


class Episode:
    """One sample's tool episode: the instance, its tool session, and what the multi-turn loop and the online
    executor read from it (the final reply, its score, the reward)."""

    def __init__(self, inst, config: ToolsConfig, hf_tokenizer, max_length: int):
        self.inst, self.config, self.tokenizer, self.max_length = inst, config, hf_tokenizer, max_length
        self.session = ToolSession(inst, config.limits)
        self.vision = vision_tokenizer(hf_tokenizer)
        self.replies: list[str] = []
        # the contract's score of the final reply (None: the length limit ended the episode)
        self.scored: Score | None = None
        self.reward = 0.0
        self.length = 0  # tokens of the episode up to the end of the last reply (as the engine was sent them)
        self.last_output = None

    def observation(self) -> str:
        tools = self.session.describe()
        text = f"{self.inst.prompt}\n\n{tools}" if tools else self.inst.prompt
        return prompt_chat(self.tokenizer, text, image=self.vision)

    @property
    def images(self) -> list | None:
        return [self.inst.png] if self.vision else None

    def saw(self, prompt_length: int, output) -> None:
        """The engine's reply to a prompt of `prompt_length` tokens (what OpenRLHF appends next)."""
        self.length = prompt_length + len(output.token_ids)
        self.last_output = output

    def _tokens(self, text: str, images) -> int:
        if images:
            from openrlhf.utils.vlm_utils import process_prompt_with_images

            return len(process_prompt_with_images(self.tokenizer, text, images)[0])
        return len(self.tokenizer(text=text, add_special_tokens=False, return_tensors="pt")["input_ids"][0])

    def _fits(self, text: str, images) -> bool:
        return self.length + self._tokens(text, images) + ANSWER_ROOM <= self.max_length

    def _finish(self, reply: str) -> dict:
        import torch

        self.scored = scored = score(self.inst.label, extract_response(reply))
        self.reward = max(0.0, float(scored.reward) - self.config.tool_cost * len(self.session.calls))
        return {"rewards": torch.tensor(self.reward), "scores": torch.tensor(float(scored.answer)),
                "environment_feedback": "", "done": True, "extra_logs": {}}

    async def step(self, states: dict) -> dict:
        import torch

        reply = states.get("action_text") or ""
        self.replies.append(reply)
        out = self.last_output
        if find_call(reply) is None or not self.session.offered or len(self.replies) >= self.config.max_turns \
                or getattr(out, "finish_reason", None) == "length":
            return self._finish(reply)
        result = await self.session.acall(reply)  # the session reads the call out of the reply
        ids = list(getattr(out, "token_ids", None) or [])
        closed = reply_ends_turn(reply, ids[-1] if ids else None, self.tokenizer)
        images = [result.png] if result.png is not None and self.vision else None
        feedback = user_turn_after_reply(self.tokenizer, result.text, images is not None, closed)
        if not self._fits(feedback, images):
            self.session.calls[-1]["withheld"] = "no room left in the episode for the result"
            images = None
            feedback = user_turn_after_reply(self.tokenizer, NO_ROOM, False, closed)
            if not self._fits(feedback, None):
                return self._finish(reply)
        return {"rewards": torch.tensor(0.0), "scores": torch.tensor(0.0), "environment_feedback": feedback,
                "environment_images": images, "done": False, "extra_logs": {}}


class EpisodeTurns(AgentInstanceBase):
    """What OpenRLHF builds per sample (no arguments): it finds its prepared episode by the label in `reset`."""

    turns: ClassVar[ToolTurns]  # set on the class ToolTurns makes for itself

    def __init__(self, *args, **kwargs):
        self.episode: Episode | None = None

    async def reset(self, states: dict, **kwargs):
        self.episode = self.turns.prepared.pop(states["label"])
        return {"observation": self.episode.observation(), "label": states["label"]}

    async def step(self, states: dict, **kwargs):
        if self.episode is None:
            raise TesseraError("an episode's step came before its reset")
        return await self.episode.step(states)


class _WatchedEngine:
    """The engine as the multi-turn loop calls it, telling the episode what each reply was."""

    def __init__(self, engine, episode: Episode):
        self.engine, self.episode = engine, episode

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        request = await self.engine.generate(prompt_token_ids, sampling_params, multi_modal_data=multi_modal_data)
        self.episode.saw(len(prompt_token_ids), request.outputs[0])
        return request


class ToolTurns(MultiTurnAgentExecutor):
    """OpenRLHF's multi-turn executor over episodes prepared by the online executor (training/online.py)."""

    def __init__(self):
        super().__init__(type("BoundEpisodeTurns", (EpisodeTurns,), {"turns": self}))
        self.prepared: dict[str, Episode] = {}
        self._keys = itertools.count()

    async def run(self, episode: Episode, prompt, sampling_params, max_length: int, hf_tokenizer, llm_engine) -> dict:
        key = f"tessera-episode-{next(self._keys)}"
        self.prepared[key] = episode
        try:
            # a copy: the loop sets max_tokens on the params it is given, and a group's samples share them
            return await self.execute(prompt, key, deepcopy(sampling_params), max_length, hf_tokenizer,
                                      _WatchedEngine(llm_engine, episode), images=episode.images)
        finally:
            self.prepared.pop(key, None)


def check_rule_needs_tools(curriculum, tools: ToolsConfig, where: str) -> None:
    """A margin curriculum or paired groups compare answers with and without tools: refuse them in a run without
    tools, where every rollout counts as "without" (the margin would stay empty and pairing would mean nothing)."""
    if not tools.enabled and (curriculum.rule == "margin" or curriculum.paired_share > 0):
        raise TesseraError(f"{where}: curriculum rule {curriculum.rule!r} with paired_share "
                           f"{curriculum.paired_share:g} compares answers with and without tools, but tools are off; "
                           f"set tools.enabled: true, or use rule threshold or uncertainty with paired_share 0")

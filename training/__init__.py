"""Training glue for OpenRLHF (0.11.x): dataset export, the reward function, the online environment with its
curriculum, and the launcher. OpenRLHF itself is an optional dependency (`pip install -e '.[train]'` plus
`pip install --no-deps openrlhf==0.11.2`); only the modules that talk to it import it, and only when called.

  export.py       `tessera export`: OpenRLHF prompt sets (offline shards, or (task, seed, level) rows for the agent)
  chat.py         the response inside a decoded chat transcript; chat text for prompts and tool turns
  reward.py       scoring one transcript with the exact verifier; the logs OpenRLHF aggregates
  reward_func.py  the file named by `--reward.remote_url` (loaded by path)
  curriculum.py   per-task levels, promotion, uncertainty gate, persistence next to checkpoints
  agent.py        the file named by `--train.agent_func_path` (loaded by path, unregistered): a shim over online.py
  online.py       the online AgentExecutor and its settings (an ordinary module, so dataclasses work)
  episode.py      tool episodes: OpenRLHF's multi-turn executor over tessera.tools, the `tools:` settings
  launch.py       `tessera train CONFIG`: the exact `python -m openrlhf.cli.train_ppo_ray ...` command
"""

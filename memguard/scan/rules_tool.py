# ruff: noqa: RUF001  (the multilingual rules hold non-Latin letters and punctuation on purpose)
"""The built-in scanner's rules, tool calls: forged call syntax, calls to run now, pre-approval pretexts, shell payloads.

Split from :mod:`memguard.scan.rules` (its 800-line layout limit), which assembles the
families into one table; each rule is a :class:`~memguard.scan.rule.Rule` over lower-cased text.
"""

from __future__ import annotations

from memguard.scan.rule import Rule
from memguard.scan.rule import rule as _r
from memguard.scan.vocabulary import (
    _CALL_NAME,
    _LOGGED,
    _NOT_LOGGED,
    _RUN_ML,
)

__all__ = ["TOOL_RULES"]

TOOL_RULES: tuple[Rule, ...] = (
    # -- tool calls ---------------------------------------------------------------------------
    _r("tool.call_syntax", 0.45, r"\b[a-z][a-z0-9]*_[a-z0-9_]+\s*\(\s*[a-z_]+\s*="),
    _r("tool.run_call", 0.85,
       f"(?:\\b{_RUN_ML}\\b|{_RUN_ML})[^.\\n(]{{0,30}}?\\b{_CALL_NAME}\\s*\\({_NOT_LOGGED}"
       f"|\\b[a-z][a-z0-9]*_[a-z0-9_]+\\s*\\([^)\\n]{{0,200}}\\)(?!{_LOGGED})[^.\\n]{{0,30}}(?:\\bnow\\b|\\bimmediately\\b|"
       f"{_RUN_ML})"),
    _r("tool.forged_call", 0.85,
       r"<\s*/?\s*(?:tool_call|tool_use|function_call|invoke|antml:invoke|tool_code)\b"
       r"|[\"'](?:tool|function|tool_name|name)[\"']\s*:\s*[\"'][a-z][a-z0-9_]*[\"']\s*,\s*"
       r"[\"'](?:arguments|args|parameters|input)[\"']"),
    _r("tool.action_label", 0.85,
       # false positives (scanfp): "yesterday's run: f(...)" names a past run, and an agent trace
       # ("Action: f(...) Observation: ...") or a call that "returned" is a log of what ran
       r"(?<!'s )(?<!’s )\b(?:action|tool request|tool call|function call|command|next action|"
       r"follow-up action|required action|run|execute|please run|todo|task)\s*[:：]\s*[a-z][a-z0-9]*_"
       f"[a-z0-9_]+\\s*\\((?![^\\n]{{0,200}}\\bobservation\\s*[:：]){_NOT_LOGGED}"),
    _r("tool.pre_approved", 0.8,
       # false positives (scanfp): a bare "has approved the transfer" reports a decision
       r"\b(?:pre-?approved|pre-?authori[sz]ed|already approved)\b"
       r"[^.\n]{0,40}\b(?:tool call|action|request|following|transfer|payment|command)"),
    # generalization (holdout2): pre-approval pretexts that wave a tool call through
    _r("tool.pre_approved_go", 0.7,
       r"\b(?:pre-?approved|pre-?authori[sz]ed|already (?:approved|authori[sz]ed|confirmed|consented|"
       r"agreed|signed off)|has "
       r"approved|have approved)\b[^.\n]{0,40}\b(?:go ahead|proceed|no need to|invoke|execute|run "
       r"it|call)\b"),
    # generalization (holdout2): "use the X tool to ...", "open the password manager tool and ..."
    _r("tool.use_tool", 0.4,
       r"\b(?:use|open|invoke|call|run)\s+(?:the |your )?(?:[\w.-]+\s+){0,2}tool\s+(?:to|and|with)\b"),
    # generalization (holdout2): code that ships secret files to another host
    _r("tool.ship_secrets", 0.7,
       # false positives (scanfp): "rsync -av ~/.ssh/ /mnt/backup/" copies to a local folder
       r"\b(?:scp|rsync|curl|wget|nc|ftp|sftp)\b[^\n]{0,80}~/\.(?:aws|ssh|gnupg|kube|docker|netrc|"
       r"config/gcloud)\b[^\n]{0,80}(?:@|https?://|ftp://|\b[\w-]+(?:\.[\w-]+)*:(?!/))"
       r"|\b(?:curl|wget|nc|ftp|sftp)\b[^\n]{0,120}(?:@|https?://)[^\n]{0,120}~/\.(?:aws|ssh|gnupg|"
       r"kube|docker|netrc|config/gcloud)\b"),
    # false positives (scanfp): "rm -rf ./build" cleans a project; a payload removes ~, / or *, or
    # pipes a plain-http or bare-IP download into a shell
    _r("tool.shell_payload", 0.6,
       r"\brm -rf +(?:~|/|\$home\b|\*|--no-preserve-root)|\b(?:curl|wget)\b[^\n|]{0,200}(?:http://|\d{1,3}"
       r"(?:\.\d{1,3}){3})[^\n|]{0,200}\|\s*(?:sudo )?(?:ba|z)?sh\b|"
       r"\bcat ~/\.(?:aws|ssh|config)|\.ssh/id_|powershell(?:\.exe)? -e(?:nc|ncodedcommand)?\b|"
       r"\bscp -r ~/\.ssh"),
    # false positives (scanfp): installers pipe an https download into a shell too: weak alone
    _r("tool.pipe_to_shell", 0.45,
       r"\bcurl\b[^\n|]{0,200}\|\s*(?:sudo )?(?:ba|z)?sh\b|\bwget\b[^\n|]{0,200}\|\s*(?:sudo )?(?:ba|z)?sh\b"),
    _r("tool.run_now", 0.3,
       r"\b(?:execute|run|call|invoke|trigger|perform) (?:it |this |that )?(?:now|immediately|"
       r"right away|at once)\b"),
)  # fmt: skip

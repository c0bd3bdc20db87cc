"""A run's configuration on a page: what the run was made with (model, agent
and prompt versions, commit, any other key), and what differs between the
two runs of a comparison. Every key and value goes through ``esc``; the
values are shown as the configuration keeps them (secrets masked when it was
made)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentmetrics.report._page import esc, section
from agentmetrics.results._config import NOT_SET, WELL_KNOWN, config_differences, shown_value

__all__ = ["config_diff_html", "config_html", "differences_line"]


def _value(value: Any) -> str:
    """A value's cell: its text (``(not set)`` on the side without the key)."""
    text = esc(shown_value(value))
    return f'<span class="muted">{text}</span>' if value is None or value is NOT_SET else text


def _ordered(config: Mapping[str, Any]) -> list[str]:
    """The well-known keys first, in their order, then the others as given."""
    return [*(key for key in WELL_KNOWN if key in config),
            *(key for key in config if key not in WELL_KNOWN)]


def differences_line(baseline: Mapping[str, Any], candidate: Mapping[str, Any],
                     shown: int = 4) -> str:
    """The keys whose values differ, for a headline: ``model differs: a → b``,
    the well-known keys first, at most ``shown`` of them; '' when none do."""
    differences = config_differences(baseline, candidate)
    if not differences:
        return ""
    keys = [key for key in _ordered({**baseline, **candidate}) if key in differences]
    said = "; ".join(f"{esc(key)} differs: {esc(shown_value(differences[key][0]))} → "
                     f"{esc(shown_value(differences[key][1]))}" for key in keys[:shown])
    more = f"; {len(keys) - shown:,} more" if len(keys) > shown else ""
    return f'<span class="config-differs">{said}{more}</span>'


def config_html(config: Mapping[str, Any], *, section_id: str = "config") -> str:
    """The section "Configuration" listing ``config``; '' when it is empty."""
    if not config:
        return ""
    listing = "".join(f"<dt>{esc(key)}</dt><dd>{_value(config[key])}</dd>"
                      for key in _ordered(config))
    return section("Configuration", f'<dl class="prov">{listing}</dl>', section_id=section_id)


def config_diff_html(baseline: Mapping[str, Any], candidate: Mapping[str, Any], *,
                     section_id: str = "config") -> str:
    """The section "Configuration" of a comparison: a table of the keys whose
    values differ (or that one side lacks), baseline then candidate, and the
    keys both share; '' when neither side has a configuration."""
    if not baseline and not candidate:
        return ""
    differences = config_differences(baseline, candidate)
    parts = []
    if differences:
        rows = "".join(
            f"<tr><td>{esc(key)}</td><td>{_value(before)}</td><td>{_value(after)}</td></tr>"
            for key, (before, after) in differences.items())
        parts.append('<div class="scroll"><table class="sortable" id="config-differences">'
                     "<caption>What the runs were made with, where it differs</caption>"
                     "<thead><tr><th>key</th><th>baseline</th><th>candidate</th></tr></thead>"
                     f"<tbody>{rows}</tbody></table></div>")
    else:
        parts.append('<p class="note">Both runs were made with the same configuration.</p>')
    same = [key for key in _ordered(baseline) if key not in differences]
    if same:
        listing = "".join(f"<dt>{esc(key)}</dt><dd>{_value(baseline[key])}</dd>"
                          for key in same)
        parts.append(f'<p class="muted">The same on both sides:</p><dl class="prov">{listing}'
                     f"</dl>")
    return section("Configuration", "".join(parts), section_id=section_id)

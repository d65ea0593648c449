"""Rule states from elsewhere: another worker of a Redis crawl, or an earlier run of a ``JOBDIR``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from .learning import Rule
from .sections import MAX_FOLDERS

if TYPE_CHECKING:
    from .learning import Learner

logger = logging.getLogger(__name__)


def adopt_rule(learner: Learner, data: dict[str, Any]) -> None:
    """Take a rule's state (:meth:`Rule.as_dict`) from another worker: learned there, it
    applies here; revoked there, it is revoked here; narrowed there, it is narrowed here."""
    shared = Rule.from_dict(data)
    rule = learner.book.rule(shared.host, shared.kind)
    if rule is None:
        return
    rule.pairs |= shared.pairs
    rule.negatives = max(rule.negatives, shared.negatives)
    rule.direction = rule.direction or shared.direction
    for via, count in shared.sources.items():
        rule.sources[via] = max(rule.sources.get(via, 0), count)
    narrowed = not shared.excluded <= rule.excluded
    rule.excluded |= shared.excluded
    for section, count in shared.held.items():
        rule.held[section] = max(rule.held.get(section, 0), count)
    # (where it held below the top: a host rule's directories, a path rule's folders;
    # without them each directory's first drop here is audited again)
    for folder, count in shared.folders.items():
        if folder in rule.folders or len(rule.folders) < MAX_FOLDERS:
            rule.folders[folder] = max(rule.folders.get(folder, 0), count)
    if shared.revoked and not rule.revoked:
        rule.revoked = True
        if rule.active:
            learner.book.set_active(rule, False)
            logger.info("Revoked rule %s on %s: another worker found it contradicted", rule.kind, rule.host)
            learner.changed(rule)
    elif learner.moves_links(rule.host, rule.kind) and not rule.revoked and not rule.sources.get("redirect"):
        # Learned from content elsewhere; this worker saw the site's links are relative.
        learner.revoke(rule, "its site serves pages with links relative to their directory")
    elif shared.active and not rule.active and not rule.revoked and rule.confirmed:
        learner.book.set_active(rule, True)
        logger.info("Applying rule %s on %s, learned by another worker", rule.kind, rule.host)
        learner.changed(rule)
    elif narrowed and rule.active:
        logger.info("Rule %s on %s narrowed by another worker (not under %s)", rule.kind, rule.host, rule.excluded)
        learner.changed(rule)


def load_rules(learner: Learner, data: dict[str, Any]) -> None:
    """Take every rule state of ``data`` (:meth:`Learner.to_dict`), as an earlier run left them."""
    for item in data.get("rules", ()):
        rule = Rule.from_dict(item)
        learner.rules[(rule.host, rule.kind)] = rule
        if rule.active:
            learner.book.set_active(rule, True)
            learner.changed(rule)

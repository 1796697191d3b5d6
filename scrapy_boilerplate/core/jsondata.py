"""A name for JSON data: what json.loads gives (JSON-LD, model files, site rules) and the JSON-able
summaries the extraction reports (site memory, site selectors, metadata sources).

Its values are whatever the JSON holds, checked where they are read: their type is left open, once, here.
"""

from __future__ import annotations

from typing import Any

#: A JSON object (json.loads), or a mapping made to be written as one.
JsonObject = dict[str, Any]

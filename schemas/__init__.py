"""JSON Schemas that are the contracts between prereg, runner, stats and audit.

Shipped as package data so an installed copy finds them; load them through
``prereg.schema`` (the one schema loader), never by path.
"""

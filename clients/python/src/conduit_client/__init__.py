"""Python client of the Conduit API: ``Conduit`` and ``ConduitProblem``; typed shapes in ``conduit_client.types``."""

from ._problem import ConduitProblem
from .client import Conduit

__all__ = ["Conduit", "ConduitProblem"]
__version__ = "0.1.0"

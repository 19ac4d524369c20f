"""The authorize controller's import of :func:`token_service.queries.authorize_view`.

Every statement of the token endpoints lives with its table's owner
(``idp_common.storage.repos``) or, for the token service's person reads, in
:mod:`token_service.queries`; this module only keeps the name the authorize controller
imports (``controllers/authorize.py`` belongs to another change) and goes once it imports
from ``token_service.queries``.
"""

from token_service.queries import authorize_view

__all__ = ["authorize_view"]

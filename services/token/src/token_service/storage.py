"""The authorize controller's import of :func:`token_service.repos.people.authorize_view`.

Every statement of the token endpoints lives with its table's owner
(``idp_common.storage.repos``) or, for the token service's person reads, in
:mod:`token_service.repos.people`; this module only keeps the name the authorize controller
imports (``controllers/authorize.py`` belongs to another change) and goes once it imports
from ``token_service.repos.people``.
"""

from token_service.repos.people import authorize_view

__all__ = ["authorize_view"]

"""What operators run: the ``idp`` tool, seeding, the cleanup job, mail and the local mail
catcher. The top layer: may import every other package of ``idp_common``."""

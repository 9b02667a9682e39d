"""`python -m pbem` is the same as the `pbem` command."""
from pbem.cli.group import main

main()

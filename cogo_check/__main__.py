"""``python -m cogo_check DIR``."""
import sys

from cogo_check.check import main

sys.exit(main())

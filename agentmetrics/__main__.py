import sys

from agentmetrics.cli import main

sys.exit(main())

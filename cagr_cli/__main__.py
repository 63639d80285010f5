from cagr_cli.main import main

raise SystemExit(main())

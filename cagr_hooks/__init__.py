"""cagr_hooks: agent hook entry points (`cagr hook`): turn end, command before, session brief."""

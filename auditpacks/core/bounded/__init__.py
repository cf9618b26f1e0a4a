"""Reading under budgets: HTTP bodies under a byte cap and one deadline, lines capped one by one and in all."""

import AmbleBand

AmbledCommand.main()

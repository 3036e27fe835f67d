import AmbleCLI

AmbleCommand.main()

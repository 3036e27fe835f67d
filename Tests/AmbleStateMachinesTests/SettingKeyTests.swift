import AmbleModel
import AmbleStateMachines
import Testing

/// The settings' declarations (`SettingKeys`): the text they store and send is the text the
/// previous release stored and sent, and each declaration reaches its own value.
struct SettingKeyTests {
    /// Default and allowed values as stored, sent and printed by `amble band settings` before
    /// the settings were typed: a band or laptop of that release reads what this one writes.
    static let released: [(BandSetting, String, String)] = [
        (.reductionPercent, "20", "10, 15, 20, 25, 30, 35 or 40"),
        (.reductionChoices, "10,15,20,25,30,40", "one to seven of 10, 15, 20, 25, 30, 35, 40, comma-separated"),
        (.calibrationSeconds, "60", "a whole number of seconds from 30 to 300"),
        (.alertStyle, "firm", "firm, gentle or silent"),
        (.alertStrength, "medium", "low, medium or high"),
        (.metronome, "off", "on or off"), (.consentHeartRate, "on", "on or off"),
        (.consentRawCapture, "off", "on or off"), (.reminders, "off", "on or off"),
        (.reminderTime, "18:00", "a time of day as HH:MM (00:00 to 23:59)"),
        (.reminderDays, "daily", "daily, weekdays, weekends, or days such as mon,wed,fri"),
        (.reminderText, "Time for a mindful walk", "1 to 40 characters"),
        (.heightCentimeters, "170", "a whole number of centimetres from 100 to 230"),
        (.weightKilograms, "70", "a whole number of kilograms from 25 to 250"),
        (.bandName, "Amble band", "1 to 32 characters that print (letters, digits, spaces, punctuation; no control characters)"),
        (.retentionDays, "30", "a whole number of days from 1 to 365"),
        (.goalProgress, "", "0 to 32 printable ASCII characters (set by amble sync from the goals)"),
    ]

    @Test func defaultsAndAllowedValuesReadAsTheReleasedOnes() {
        #expect(Self.released.map(\.0) == BandSetting.allCases)
        for (setting, defaultText, allowed) in Self.released {
            #expect(setting.defaultValue == defaultText, "\(setting)")
            #expect(setting.allowed == allowed, "\(setting)")
            #expect(BandSettingValues().text(setting) == defaultText, "\(setting): the typed default is the stored one")
        }
    }

    @Test func textIsStoredInTheReleasedCanonicalForm() {
        let canonical: [(BandSetting, String, String?)] = [
            (.reductionPercent, " 35 ", "35"), (.reductionPercent, "33", nil), (.reductionPercent, "45", nil), (.reductionPercent, "5", nil),
            (.reductionChoices, "30, 10,20", "10,20,30"), (.reductionChoices, "10,10", nil), (.reductionChoices, "10,15,20,25,30,35,40,", "10,15,20,25,30,35,40"),
            (.reductionChoices, "", nil), (.reductionChoices, "10,x", nil),
            (.calibrationSeconds, "030", "30"), (.calibrationSeconds, "301", nil),
            (.alertStyle, "  GENTLE ", "gentle"), (.alertStyle, "loud", nil), (.alertStrength, "High", "high"),
            (.metronome, "ON", "on"), (.consentHeartRate, "off", "off"), (.reminders, "yes", nil),
            (.reminderTime, "7:05", "07:05"), (.reminderTime, "24:00", nil), (.reminderDays, "Mon,WED", "mon,wed"),
            (.reminderDays, "mon,tue,wed,thu,fri", "weekdays"), (.reminderDays, "someday", nil),
            (.reminderText, " After lunch ", "After lunch"), (.reminderText, String(repeating: "x", count: 41), nil),
            (.heightCentimeters, "0182", "182"), (.weightKilograms, "251", nil),
            (.bandName, "Zoë – left", "Zoë – left"), (.bandName, String(repeating: "x", count: 33), nil),
            (.retentionDays, "0", nil), (.goalProgress, "Today 64% walks 1/3", "Today 64% walks 1/3"), (.goalProgress, "Zoë", nil),
        ]
        for (setting, raw, expected) in canonical {
            #expect((try? setting.validate(raw)) == expected, "\(setting): \(raw)")
        }
    }

    @Test func eachDeclarationReachesItsOwnValueAndNoOther() {
        for setting in BandSetting.allCases {
            let key = setting.key
            var values = BandSettingValues()
            let other = key.menuChoices(values).storedTexts.first { $0 != key.defaultText }
                ?? (setting == .goalProgress ? "Today" : setting == .reminderDays ? "weekends" : setting == .reminderTime ? "07:30" : "Another")
            #expect(key.set(other, in: &values), "\(setting): \(other)")
            #expect(values.text(setting) == other, "\(setting)")
            for unchanged in BandSetting.allCases where unchanged != setting {
                #expect(values.text(unchanged) == unchanged.defaultValue, "setting \(setting) changed \(unchanged)")
            }
            #expect(BandSettingValues([setting: other]) == values, "\(setting): read back from the store")
        }
    }

    @Test func theMenuOffersOnlyValuesThatAreAllowedWithTheCurrentOneSelected() {
        var values = BandSettingValues()
        values.heightCentimeters = 173   // not among the offered, every other one
        for entry in SettingsMenu.entries {
            guard case .setting(let setting) = entry else { continue }
            let choices = setting.key.menuChoices(values)
            #expect(choices.labels.count == choices.storedTexts.count && choices.labels.count >= 2, "\(setting)")
            #expect(choices.storedTexts.allSatisfy { (try? setting.validate($0)) == $0 }, "\(setting)")
            #expect(choices.storedTexts[choices.selected] == values.text(setting), "\(setting)")
        }
        let heights = SettingKeys.heightCentimeters.menuChoices(values).storedTexts
        #expect(heights.contains("173") && heights == heights.sorted { Int($0)! < Int($1)! }, "the wearer's own height in order")
    }

    @Test func aValueChosenOnTheMenuIsTypedOnItsWayToTheBand() {
        var values = BandSettingValues()
        var choices = SettingKeys.alertStyle.menuChoices(values)
        choices.move(by: 1)
        #expect(choices.choose(into: &values) == "gentle")
        #expect(values.alertStyle == .gentle)
        #expect(values[SettingKeys.alertStyle] == .gentle)
    }
}

import Diagnostics
import LocatedYAML

/// The ids of the garage's diagnostics: values, references between files, plausibility checks,
/// parts and the activity cache.
extension DiagnosticID {
    package static let badAmount = DiagnosticID("bad-amount")
    package static let conflictingCurrency = DiagnosticID("conflicting-currency")
    package static let costWithoutCurrency = DiagnosticID("cost-without-currency")
    package static let componentAfterRetired = DiagnosticID("component-after-retired")
    package static let foreignCurrency = DiagnosticID("foreign-currency")
    package static let badDate = DiagnosticID("bad-date")
    package static let badDuration = DiagnosticID("bad-duration")
    package static let badEmailAddress = DiagnosticID("bad-email-address")
    package static let badGearId = DiagnosticID("bad-gear-id")
    package static let badId = DiagnosticID("bad-id")
    package static let badMailServer = DiagnosticID("bad-mail-server")
    package static let badPercentage = DiagnosticID("bad-percentage")
    package static let badQuantity = DiagnosticID("bad-quantity")
    package static let badURL = DiagnosticID("bad-url")
    package static let badValue = DiagnosticID("bad-value")
    package static let cacheBadField = DiagnosticID("cache-bad-field")
    package static let cacheDuplicateActivity = DiagnosticID("cache-duplicate-activity")
    package static let cacheFileName = DiagnosticID("cache-file-name")
    package static let cacheMisplaced = DiagnosticID("cache-misplaced")
    package static let cacheMissingField = DiagnosticID("cache-missing-field")
    package static let cacheSyntax = DiagnosticID("cache-syntax")
    package static let cacheUnsorted = DiagnosticID("cache-unsorted")
    package static let duplicateGearId = DiagnosticID("duplicate-gear-id")
    package static let duplicateDevice = DiagnosticID("duplicate-device")
    package static let duplicateId = DiagnosticID("duplicate-id")
    package static let duplicateTodo = DiagnosticID("duplicate-todo")
    package static let emptyTodo = DiagnosticID("empty-todo")
    package static let futureDate = DiagnosticID("future-date")
    package static let likelyOverride = DiagnosticID("likely-override")
    package static let logAfterRetired = DiagnosticID("log-after-retired")
    package static let logBeforeBought = DiagnosticID("log-before-bought")
    package static let missingKey = DiagnosticID("missing-key")
    package static let missingLimit = DiagnosticID("missing-limit")
    package static let mountAfterRetired = DiagnosticID("mount-after-retired")
    package static let mountBeforeBought = DiagnosticID("mount-before-bought")
    package static let mountEndsBeforeStart = DiagnosticID("mount-ends-before-start")
    package static let negativeNumber = DiagnosticID("negative-number")
    package static let nonPositiveQuantity = DiagnosticID("non-positive-quantity")
    package static let numberTooLarge = DiagnosticID("number-too-large")
    package static let overlappingMounts = DiagnosticID("overlapping-mounts")
    package static let mountCycle = DiagnosticID("mount-cycle")
    package static let unknownPart = DiagnosticID("unknown-part")
    package static let partIdIsBikeId = DiagnosticID("part-id-is-bike-id")
    package static let partOnRetiredBike = DiagnosticID("part-on-retired-bike")
    package static let possibleDuplicateService = DiagnosticID("possible-duplicate-service")
    package static let quantityTooLarge = DiagnosticID("quantity-too-large")
    package static let readingUnitMismatch = DiagnosticID("reading-unit-mismatch")
    package static let readingWithoutLimit = DiagnosticID("reading-without-limit")
    package static let retiredBeforeBought = DiagnosticID("retired-before-bought")
    package static let rideAlsoOnStrava = DiagnosticID("ride-also-on-strava")
    package static let rideAfterRetired = DiagnosticID("ride-after-retired")
    package static let rideBeforeBought = DiagnosticID("ride-before-bought")
    package static let secretInGarage = DiagnosticID("secret-in-garage")
    package static let slotTaken = DiagnosticID("slot-taken")
    package static let snoozeExpired = DiagnosticID("snooze-expired")
    package static let symlinkOutsideGarage = DiagnosticID("symlink-outside-garage")
    package static let unknownBand = DiagnosticID("unknown-band")
    package static let unknownBike = DiagnosticID("unknown-bike")
    package static let unknownComponent = DiagnosticID("unknown-component")
    package static let unknownInterval = DiagnosticID("unknown-interval")
    package static let unknownKey = DiagnosticID("unknown-key")
    package static let unknownOverride = DiagnosticID("unknown-override")
    package static let unknownRider = DiagnosticID("unknown-rider")
    package static let unknownSportType = DiagnosticID("unknown-sport-type")
    package static let unknownTemplate = DiagnosticID("unknown-template")
    package static let unresolvedMerge = DiagnosticID("unresolved-merge")
    package static let unreadableFile = DiagnosticID("unreadable-file")
    package static let fileTooLarge = DiagnosticID("file-too-large")
    package static let wrongType = DiagnosticID("wrong-type")

    /// Every id the garage's loading reports.
    package static let garage: [DiagnosticID] = [
        .badAmount, .componentAfterRetired, .conflictingCurrency, .costWithoutCurrency, .foreignCurrency,
        .badDate, .badDuration, .badEmailAddress, .badGearId, .badId, .badMailServer, .badPercentage, .badQuantity, .badURL,
        .badValue, .cacheBadField,
        .cacheDuplicateActivity, .cacheFileName, .cacheMisplaced, .cacheMissingField, .cacheSyntax,
        .cacheUnsorted, .duplicateDevice, .duplicateGearId, .duplicateId, .duplicateTodo, .emptyTodo, .fileTooLarge, .futureDate, .likelyOverride,
        .logAfterRetired,
        .logBeforeBought, .missingKey, .missingLimit, .mountAfterRetired, .mountBeforeBought,
        .mountCycle, .mountEndsBeforeStart, .negativeNumber, .nonPositiveQuantity, .numberTooLarge, .overlappingMounts,
        .partIdIsBikeId, .partOnRetiredBike, .possibleDuplicateService, .quantityTooLarge, .readingUnitMismatch, .readingWithoutLimit, .retiredBeforeBought,
        .rideAfterRetired, .rideAlsoOnStrava,
        .rideBeforeBought, .secretInGarage,
        .slotTaken, .snoozeExpired,
        .symlinkOutsideGarage, .unknownBand, .unknownBike, .unknownComponent, .unknownInterval, .unknownKey,
        .unknownOverride, .unknownPart, .unknownRider, .unknownSportType, .unknownTemplate, .unresolvedMerge, .unreadableFile, .wrongType,
    ]

    /// Every id bikecheck reports: the YAML layer's, the garage's, and the count of the rest.
    package static var all: [DiagnosticID] { yaml + garage + [.tooManyProblems] }
}

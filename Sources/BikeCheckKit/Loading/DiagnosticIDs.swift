import Diagnostics
import LocatedYAML

/// The ids of the garage's diagnostics: values, references between files, plausibility checks,
/// parts and the activity cache.
extension DiagnosticID {
    public static let badAmount = DiagnosticID("bad-amount")
    public static let conflictingCurrency = DiagnosticID("conflicting-currency")
    public static let costWithoutCurrency = DiagnosticID("cost-without-currency")
    public static let foreignCurrency = DiagnosticID("foreign-currency")
    public static let badDate = DiagnosticID("bad-date")
    public static let badDuration = DiagnosticID("bad-duration")
    public static let badEmailAddress = DiagnosticID("bad-email-address")
    public static let badGearId = DiagnosticID("bad-gear-id")
    public static let badId = DiagnosticID("bad-id")
    public static let badMailServer = DiagnosticID("bad-mail-server")
    public static let badPercentage = DiagnosticID("bad-percentage")
    public static let badQuantity = DiagnosticID("bad-quantity")
    public static let badURL = DiagnosticID("bad-url")
    public static let badValue = DiagnosticID("bad-value")
    public static let cacheBadField = DiagnosticID("cache-bad-field")
    public static let cacheDuplicateActivity = DiagnosticID("cache-duplicate-activity")
    public static let cacheFileName = DiagnosticID("cache-file-name")
    public static let cacheMisplaced = DiagnosticID("cache-misplaced")
    public static let cacheMissingField = DiagnosticID("cache-missing-field")
    public static let cacheSyntax = DiagnosticID("cache-syntax")
    public static let cacheUnsorted = DiagnosticID("cache-unsorted")
    public static let duplicateGearId = DiagnosticID("duplicate-gear-id")
    public static let duplicateId = DiagnosticID("duplicate-id")
    public static let duplicateTodo = DiagnosticID("duplicate-todo")
    public static let emptyTodo = DiagnosticID("empty-todo")
    public static let futureDate = DiagnosticID("future-date")
    public static let likelyOverride = DiagnosticID("likely-override")
    public static let logAfterRetired = DiagnosticID("log-after-retired")
    public static let logBeforeBought = DiagnosticID("log-before-bought")
    public static let missingKey = DiagnosticID("missing-key")
    public static let missingLimit = DiagnosticID("missing-limit")
    public static let mountAfterRetired = DiagnosticID("mount-after-retired")
    public static let mountBeforeBought = DiagnosticID("mount-before-bought")
    public static let mountEndsBeforeStart = DiagnosticID("mount-ends-before-start")
    public static let negativeNumber = DiagnosticID("negative-number")
    public static let nonPositiveQuantity = DiagnosticID("non-positive-quantity")
    public static let numberTooLarge = DiagnosticID("number-too-large")
    public static let overlappingMounts = DiagnosticID("overlapping-mounts")
    public static let partIdIsBikeId = DiagnosticID("part-id-is-bike-id")
    public static let partOnRetiredBike = DiagnosticID("part-on-retired-bike")
    public static let quantityTooLarge = DiagnosticID("quantity-too-large")
    public static let retiredBeforeBought = DiagnosticID("retired-before-bought")
    public static let rideAlsoOnStrava = DiagnosticID("ride-also-on-strava")
    public static let rideAfterRetired = DiagnosticID("ride-after-retired")
    public static let rideBeforeBought = DiagnosticID("ride-before-bought")
    public static let secretInGarage = DiagnosticID("secret-in-garage")
    public static let slotTaken = DiagnosticID("slot-taken")
    public static let snoozeExpired = DiagnosticID("snooze-expired")
    public static let symlinkOutsideGarage = DiagnosticID("symlink-outside-garage")
    public static let unknownBand = DiagnosticID("unknown-band")
    public static let unknownBike = DiagnosticID("unknown-bike")
    public static let unknownComponent = DiagnosticID("unknown-component")
    public static let unknownInterval = DiagnosticID("unknown-interval")
    public static let unknownKey = DiagnosticID("unknown-key")
    public static let unknownOverride = DiagnosticID("unknown-override")
    public static let unknownSportType = DiagnosticID("unknown-sport-type")
    public static let unknownTemplate = DiagnosticID("unknown-template")
    public static let unreadableFile = DiagnosticID("unreadable-file")
    public static let fileTooLarge = DiagnosticID("file-too-large")
    public static let wrongType = DiagnosticID("wrong-type")

    /// Every id the garage's loading reports.
    public static let garage: [DiagnosticID] = [
        .badAmount, .conflictingCurrency, .costWithoutCurrency, .foreignCurrency,
        .badDate, .badDuration, .badEmailAddress, .badGearId, .badId, .badMailServer, .badPercentage, .badQuantity, .badURL,
        .badValue, .cacheBadField,
        .cacheDuplicateActivity, .cacheFileName, .cacheMisplaced, .cacheMissingField, .cacheSyntax,
        .cacheUnsorted, .duplicateGearId, .duplicateId, .duplicateTodo, .emptyTodo, .fileTooLarge, .futureDate, .likelyOverride, .logAfterRetired,
        .logBeforeBought, .missingKey, .missingLimit, .mountAfterRetired, .mountBeforeBought,
        .mountEndsBeforeStart, .negativeNumber, .nonPositiveQuantity, .numberTooLarge, .overlappingMounts,
        .partIdIsBikeId, .partOnRetiredBike, .quantityTooLarge, .retiredBeforeBought, .rideAfterRetired, .rideAlsoOnStrava, .rideBeforeBought, .secretInGarage,
        .slotTaken, .snoozeExpired,
        .symlinkOutsideGarage, .unknownBand, .unknownBike, .unknownComponent, .unknownInterval, .unknownKey,
        .unknownOverride, .unknownSportType, .unknownTemplate, .unreadableFile, .wrongType,
    ]

    /// Every id bikecheck reports: the YAML layer's, the garage's, and the count of the rest.
    public static var all: [DiagnosticID] { yaml + garage + [.tooManyProblems] }
}

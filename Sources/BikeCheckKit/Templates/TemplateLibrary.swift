/// Service templates `bikecheck init` puts in a new garage: common schedules riders can apply
/// to their bikes and then tune. Each is a template file's text, without the schema modeline.
package enum TemplateLibrary {
    package static let templates: [(id: String, text: String)] = [
        (
            "road",
            """
            name: Road bike basics
            description: >
              Baseline schedule for a road bike, after Shimano's and Park Tool's guidance:
              lube often, measure the chain, replace wear parts by distance.
            intervals:
              chain-lube:
                task: Clean and lube the chain
                component: chain
                every: 10 h
              chain-replace:
                task: Replace the chain (check wear at 0.5 %)
                component: chain
                replaces: chain          # doing this starts the chain's life again
                every: 3000 km
              brake-pads:
                task: Check brake pads, replace below 1 mm
                every: 1500 km
              tyres:
                task: Replace tyres
                component: tyres
                replaces: tyres
                every: [4000 km, 2 years]
              bar-tape:
                task: Replace bar tape
                every: 12 months
              full-service:
                task: Full service (bearings, cables, torque check)
                every: [100 h, 12 months]   # whichever comes first

            """
        ),
        (
            "gravel",
            """
            name: Gravel bike basics
            description: >
              Dust and mud wear a gravel drivetrain faster than a road one: lube more often,
              check pads and bearings sooner.
            intervals:
              chain-lube:
                task: Clean and lube the chain
                component: chain
                every: 6 h
              chain-replace:
                task: Replace the chain (check wear at 0.5 %)
                component: chain
                replaces: chain
                every: [2000 km, 80 h]
              brake-pads:
                task: Check brake pads, replace below 1 mm
                every: 1000 km
              tyres:
                task: Replace tyres
                component: tyres
                replaces: tyres
                every: [3000 km, 2 years]
              bottom-bracket:
                task: Check the bottom bracket for play and noise
                every: [100 h, 12 months]
              full-service:
                task: Full service (bearings, cables, torque check)
                every: [100 h, 12 months]

            """
        ),
        (
            "suspension-fork",
            """
            name: Suspension fork
            description: Typical maker schedule for an air fork (Fox, RockShox), by hours of riding or yearly.
            intervals:
              fork-lowers:
                task: Fork lower leg service (wipers, foam rings, oil bath)
                component: fork
                every: [50 h, 12 months]
              fork-full:
                task: Fork damper and air spring service
                component: fork
                every: [200 h, 24 months]

            """
        ),
        (
            "rear-shock",
            """
            name: Rear shock
            description: Typical maker schedule for an air shock (Fox, RockShox), by hours of riding or yearly.
            intervals:
              shock-air-can:
                task: Shock air can service
                component: shock
                every: [50 h, 12 months]
              shock-full:
                task: Shock damper rebuild
                component: shock
                every: [200 h, 24 months]

            """
        ),
        (
            "ebike-drive",
            """
            name: E-bike drive unit
            description: Makers ask for a yearly dealer inspection; e-bike chains wear about twice as fast.
            intervals:
              drive-inspection:
                task: Dealer inspection and firmware update
                every: [12 months, 5000 km]
              chain-lube:
                task: Clean and lube the chain
                component: chain
                every: 200 km
              chain-replace:
                task: Replace the chain
                component: chain
                replaces: chain
                every: 1500 km

            """
        ),
        (
            "tubeless",
            """
            name: Tubeless sealant
            description: Sealant dries out with time, not distance; Stan's suggests 2 to 7 months.
            intervals:
              sealant:
                task: Top up tubeless sealant
                every: 3 months
                due_soon: 70%

            """
        ),
    ]
}

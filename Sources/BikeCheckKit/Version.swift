/// bikecheck's version: what `bikecheck --version` prints, and the heading of CHANGELOG.md's top
/// entry (a test keeps the two equal).
package let bikecheckVersion = "0.2.0"

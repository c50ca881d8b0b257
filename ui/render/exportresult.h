#pragma once
/** What an export returns: whether it wrote its file, what its log colour scales could not place, and why not. */

#include <Eigen/Core>

#include <QString>

namespace render {

/** The outcome of writing one figure, report or handout. */
struct ExportResult {
    bool written = false;            ///< true when the whole file (or device) was written
    QString path;                    ///< the file written; empty for a device, or when nothing was written
    Eigen::Index belowLogScale = 0;  ///< cells the log colour scales could not place (ColourScale::belowLogScale())
    QString error;                   ///< why nothing was written, naming the file; empty when written

    /** The failure with message. */
    static ExportResult failed(const QString& message) { return {false, QString(), 0, message}; }
};

}  // namespace render

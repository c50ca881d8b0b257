#pragma once
/** Files the window and the command line export or import: matrices as .npy or CSV, every step of a
 *  trace into a folder, PyTorch code. Every write is atomic (render::writeAtomically): on failure nothing
 *  is changed. */

#include "core/tensor/matrix.h"
#include "core/attention/model.h"
#include "core/formats/npy.h"
#include "core/attention/trace.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace exports {

/** Reads a matrix from a .npy file (float64 or float32) or a text file of rows (.csv, .tsv, .txt or
 *  any other ending; a header row of names is skipped). Refuses non-finite entries. On failure returns
 *  nothing and a message that starts with the file name. */
std::optional<core::Matrix> readMatrixFile(const QString& path, QString* error);

/** Writes a matrix as .npy when path ends in .npy (float64 little-endian unless layout says otherwise),
 *  else as CSV (tab-separated for .tsv). */
bool writeMatrixFile(const QString& path, const core::MatrixCRef& m, QString* error,
                     const core::NpyLayout& layout = {});

/** Writes core::stepFiles(trace, tokens) into folder (created when missing): one CSV per step and head and
 *  trace.json in the --compute format, all or nothing (render::writeFolderAtomically): on failure the
 *  folder is left as it was. When folder holds an earlier export (a trace.json), the step files of that
 *  export which this one does not write (another head's, W_O's, a bias's) are removed in the same commit.
 *  *written (when not null) receives the file names. */
bool writeStepFiles(const core::Trace& trace, const QString& folder, QString* error, QStringList* written = nullptr,
                    const std::vector<std::string>& tokens = {});

/** Writes core::pytorchCode(model, title) to path. */
bool writePytorchFile(const core::AttentionModel& model, const QString& title, const QString& path, QString* error);

}  // namespace exports

#include "exportfiles.h"

#include "core/attention/csvio.h"
#include "core/attention/pytorchexport.h"
#include "ui/render/atomicwrite.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

namespace exports {

namespace {

/** The translation context of these texts, the same for lupdate and at run time. */
struct Exports {
    Q_DECLARE_TR_FUNCTIONS(Exports)
};

bool fail(QString* error, const QString& message)
{
    if (error)
        *error = message;
    return false;
}

/** Largest matrix file read: a .npy of maxNpyEntries doubles and its header. */
constexpr qint64 kMaxMatrixFileBytes = qint64(core::maxNpyEntries) * 8 + (1 << 20);

}  // namespace

std::optional<core::Matrix> readMatrixFile(const QString& path, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        fail(error, Exports::tr("%1: %2").arg(path, file.errorString()));
        return std::nullopt;
    }
    if (file.size() > kMaxMatrixFileBytes) {
        fail(error, Exports::tr("%1: the file is too large (%2 bytes)").arg(path).arg(file.size()));
        return std::nullopt;
    }
    const QByteArray bytes = file.readAll();
    const std::string_view view(bytes.constData(), std::size_t(bytes.size()));
    std::string why;
    std::optional<core::Matrix> m;
    if (QFileInfo(path).suffix().compare(QLatin1String("npy"), Qt::CaseInsensitive) == 0) {
        if (auto array = core::decodeNpy(view, why))
            m = std::move(array->values);
    } else {
        core::CsvReadOptions options;
        options.allowHeader = true;
        m = core::parseCsv(view, why, options);
    }
    if (!m)
        fail(error, Exports::tr("%1: %2").arg(path, QString::fromStdString(why)));
    return m;
}

bool writeMatrixFile(const QString& path, const core::MatrixCRef& m, QString* error, const core::NpyLayout& layout)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    const std::string bytes = suffix == QLatin1String("npy") ? core::encodeNpy(m, layout)
                                                             : core::formatCsv(m, suffix == QLatin1String("tsv") ? '\t' : ',');
    return render::writeAtomically(path, QByteArray::fromStdString(bytes), error);
}

bool writeStepFiles(const core::Trace& trace, const QString& folder, QString* error, QStringList* written,
                    const std::vector<std::string>& tokens)
{
    const QDir dir(folder);
    const bool existed = dir.exists();
    if (QFileInfo(folder).exists() && !existed)
        return fail(error, Exports::tr("%1 is a file, not a folder").arg(folder));
    if (!dir.mkpath(QStringLiteral(".")))
        return fail(error, Exports::tr("Cannot create the folder \"%1\"").arg(folder));
    std::vector<render::FolderFile> files;
    QStringList names;
    for (const core::StepFile& file : core::stepFiles(trace, tokens)) {
        files.push_back({QString::fromStdString(file.name), QByteArray::fromStdString(file.text)});
        names << files.back().name;
    }
    // A folder that holds an earlier export (its trace.json) describes one computation: the step files
    // of the earlier one that this one does not write (a second head's, W_O's) go in the same commit.
    // Only names the exporter gives are touched, never the user's other files.
    QStringList stale;
    if (existed && QFileInfo(dir.filePath(QStringLiteral("trace.json"))).isFile())
        for (const QString& name : dir.entryList(QDir::Files))
            if (!names.contains(name) && core::isStepFileName(name.toStdString()))
                stale << name;
    if (!render::writeFolderAtomically(folder, files, stale, error)) {
        if (!existed)
            QDir().rmdir(folder);  // the folder this call made, empty again
        return false;
    }
    if (written)
        *written = names;
    return true;
}

bool writePytorchFile(const core::AttentionModel& model, const QString& title, const QString& path, QString* error)
{
    return render::writeAtomically(path, QByteArray::fromStdString(core::pytorchCode(model, title.toStdString())), error);
}

}  // namespace exports

#include "atomicwrite.h"

#include <QCoreApplication>
#include <QSaveFile>

namespace render {

namespace {

/** The translation context of these texts, shared with the other exports' messages. */
struct Exports {
    Q_DECLARE_TR_FUNCTIONS(Exports)
};

}  // namespace

bool writeAtomically(const QString& path, const std::function<bool(QIODevice*, QString*)>& write, QString* error)
{
    const auto fail = [&](const QString& why) {
        if (error)
            *error = Exports::tr("Cannot write \"%1\": %2").arg(path, why);
        return false;
    };
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(file.errorString());
    QString why;
    if (!write(&file, &why)) {
        file.cancelWriting();
        return fail(why.isEmpty() ? file.errorString() : why);
    }
    if (file.error() != QFileDevice::NoError || !file.commit())
        return fail(file.errorString());
    return true;
}

}  // namespace render

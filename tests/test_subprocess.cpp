// The one way optbench starts a process (harness/subprocess.h): output
// captured, exit status and signal death seen, a child that outlives neither
// this process nor another child's pipes.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>

#include "harness/subprocess.h"

using namespace optbench;

namespace {

// Everything until EOF. Waits for the pipe without a time limit: a test that
// fails by hanging is stopped by ctest's timeout.
std::string read_all(int fd) {
  std::string s;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    s.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return s;
}

SpawnOptions shell(const std::string& script) {
  SpawnOptions o;
  o.argv = {"/bin/sh", "-c", script};
  return o;
}

}  // namespace

TEST(Subprocess, CapturesEachStreamAndTheExitStatus) {
  SpawnOptions o = shell("echo to-out; echo to-err >&2; exit 3");
  o.out = Stdio::pipe;
  o.err = Stdio::pipe;
  const Subprocess p = spawn(o);
  EXPECT_EQ(p.in, -1);
  EXPECT_EQ(read_all(p.out), "to-out\n");
  EXPECT_EQ(read_all(p.err), "to-err\n");
  const int st = wait_status(p.pid);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 3);
}

TEST(Subprocess, StderrCanJoinStdoutAndStdinIsAPipe) {
  SpawnOptions o = shell("read line; echo \"got $line\"; echo oops >&2");
  o.in = Stdio::pipe;
  o.out = Stdio::pipe;
  o.err = Stdio::to_stdout;
  const Subprocess p = spawn(o);
  ASSERT_EQ(::write(p.in, "hello\n", 6), 6);
  ::close(p.in);
  EXPECT_EQ(read_all(p.out), "got hello\noops\n");
  EXPECT_EQ(wait_status(p.pid), 0);
}

TEST(Subprocess, EnvironmentAndPathSearch) {
  SpawnOptions o;
  o.argv = {"sh", "-c", "echo \"$ONLY/$HOME\""};  // the whole environment: no HOME
  o.search_path = true;
  o.env = std::vector<std::string>{"ONLY=this"};
  o.out = Stdio::pipe;
  const Subprocess p = spawn(o);
  EXPECT_EQ(read_all(p.out), "this/\n");
  EXPECT_EQ(wait_status(p.pid), 0);
}

TEST(Subprocess, SeesADeathBySignal) {
  const Subprocess p = spawn(shell("kill -TERM $$"));
  const int st = wait_status(p.pid);
  ASSERT_TRUE(WIFSIGNALED(st));
  EXPECT_EQ(WTERMSIG(st), SIGTERM);
}

TEST(Subprocess, AProgramThatCannotStartSaysSoAndExits127) {
  SpawnOptions o;
  o.argv = {"/nonexistent/program"};
  o.err = Stdio::pipe;
  const Subprocess p = spawn(o);
  EXPECT_EQ(read_all(p.err), "optbench: cannot start /nonexistent/program: No such file or directory\n");
  const int st = wait_status(p.pid);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 127);
}

TEST(Subprocess, OwnProcessGroup) {
  SpawnOptions o = shell("echo started; read line || true");
  o.in = Stdio::pipe;
  o.out = Stdio::pipe;
  o.own_process_group = true;
  const Subprocess p = spawn(o);
  char c;
  ASSERT_EQ(::read(p.out, &c, 1), 1);  // it runs the script: past setpgid
  EXPECT_EQ(::getpgid(p.pid), p.pid);
  ::close(p.in);
  read_all(p.out);
  EXPECT_EQ(wait_status(p.pid), 0);
}

// A child holding another child's pipe would keep that one from seeing EOF:
// cat below ends only if the sleeping child did not inherit cat's stdin.
TEST(Subprocess, AChildHoldsNoOtherChildsPipes) {
  SpawnOptions c;
  c.argv = {"/bin/cat"};
  c.in = Stdio::pipe;
  c.out = Stdio::pipe;
  const Subprocess cat = spawn(c);
  SpawnOptions s = shell("read line || true");
  s.in = Stdio::pipe;
  const Subprocess other = spawn(s);
  ASSERT_EQ(::write(cat.in, "x\n", 2), 2);
  ::close(cat.in);
  EXPECT_EQ(read_all(cat.out), "x\n");
  EXPECT_EQ(wait_status(cat.pid), 0);
  ::close(other.in);
  EXPECT_EQ(wait_status(other.pid), 0);
}

// The parent killed with SIGKILL: its child goes too. This process adopts the
// orphan (a subreaper) to see how it ended.
TEST(Subprocess, DiesWithItsParent) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    SpawnOptions o = shell("echo up; exec sleep 1000");
    o.out = Stdio::pipe;
    o.die_with_parent = SIGKILL;
    const Subprocess p = spawn(o);
    char c;
    if (::read(p.out, &c, 1) != 1) ::_exit(1);  // it runs the script: past prctl
    (void)!::write(report[1], &p.pid, sizeof p.pid);
    for (;;) ::pause();
  }
  ::close(report[1]);
  pid_t child = -1;
  ASSERT_EQ(::read(report[0], &child, sizeof child), static_cast<ssize_t>(sizeof child));
  ::close(report[0]);
  ::kill(parent, SIGKILL);
  wait_status(parent);
  // Reparented to this process: waiting on it returns once it is gone.
  int st = 0;
  pid_t got = 0;
  for (int i = 0; i < 600 && got == 0; ++i) {
    got = ::waitpid(child, &st, WNOHANG);
    if (got == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  if (got == 0) {
    ::kill(child, SIGKILL);
    wait_status(child);
    FAIL() << "the child outlived its parent by a minute";
  }
  ASSERT_EQ(got, child);
  ASSERT_TRUE(WIFSIGNALED(st));
  EXPECT_EQ(WTERMSIG(st), SIGKILL);
}

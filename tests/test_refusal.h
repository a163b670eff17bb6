/* tests/test_refusal.h: an error that a test provokes on purpose, caught instead of ending the program (the option
   -err_continue of test_vbjacobi, test_baijksparse, test_baijksparse_values and test_baijksparse_coo). Without it the
   error reaches main(), where PETSc calls MPI_Abort(): the process ends there, each such case needs a process of its
   own, and nothing after the error is checked. With it the program reports the refusal, goes on (or frees what it made)
   and exits 0, so that a valgrind group of tests/run.sh (several cases in one process, tests/multirun) can run it; its
   leak check then covers the error path as well.

     PBG_TEST_REFUSE(ierr, CALL)            runs CALL with PETSc's error handler set to return: ierr is CALL's error code
     PBGTestRefused(comm, ierr, "what")     fails (the test's own error) when ierr is 0, that is when CALL was accepted;
                                            else prints "[rank] what refused (error N): MESSAGE" on each rank of comm, in
                                            rank order (collective), MESSAGE being the error's own message (the one PETSc
                                            prints after "PETSC ERROR:"), which the test case greps */
#pragma once
#include <petscsys.h>

#define PBG_TEST_REFUSE(ierr, call) \
  do { \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    ierr = (call); \
    PetscCall(PetscPopErrorHandler()); \
  } while (0)

static inline PetscErrorCode PBGTestRefused(MPI_Comm comm, PetscErrorCode ierr, const char *what)
{
  const char *text = NULL, *specific = NULL;
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(ierr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "[%d] %s was accepted; it must fail", (int)rank, what);
  PetscCall(PetscErrorMessage(ierr, &text, &specific));
  PetscCall(PetscSynchronizedPrintf(comm, "[%d] %s refused (error %d): %s\n", (int)rank, what, (int)ierr, specific && specific[0] ? specific : text));
  PetscCall(PetscSynchronizedFlush(comm, PETSC_STDOUT));
  PetscFunctionReturn(PETSC_SUCCESS);
}
